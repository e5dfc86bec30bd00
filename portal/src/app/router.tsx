import { createBrowserRouter, Navigate } from 'react-router';
import { NotFound } from '../components/not-found';
import { RouteError } from '../components/route-error';
import { DeliveryPage } from '../pages/delivery-page';
import { LoginPage } from '../pages/login-page';
import { SubscriptionFormPage } from '../pages/subscription-form-page';
import { SubscriptionPage } from '../pages/subscription/subscription-page';
import { SubscriptionsPage } from '../pages/subscriptions-page';
import { Layout, RequireSession } from './layout';

/** Where the app lives (vite.config.mts `base`; the service serves it there). */
export const BASE = '/portal';

export const createRouter = () =>
  createBrowserRouter(
    [
      {
        element: <Layout />,
        children: [
          {
            // Below the header: a page that fails to render leaves the header and a way back.
            errorElement: <RouteError />,
            children: [
              { path: 'login', element: <LoginPage /> },
              {
                element: <RequireSession />,
                children: [
                  { index: true, element: <Navigate to="/subscriptions" replace /> },
                  { path: 'subscriptions', element: <SubscriptionsPage /> },
                  { path: 'subscriptions/new', element: <SubscriptionFormPage /> },
                  { path: 'subscriptions/:id', element: <SubscriptionPage /> },
                  { path: 'subscriptions/:id/edit', element: <SubscriptionFormPage /> },
                  { path: 'subscriptions/:id/deliveries/:deliveryId', element: <DeliveryPage /> },
                  { path: '*', element: <NotFound /> },
                ],
              },
            ],
          },
        ],
      },
    ],
    { basename: BASE },
  );
